import { fetchItems } from './api';

// Loads items into the list.
export async function loadItems(list) {
  const items = await fetchItems();
  list.replace(items);
}

export class ItemList extends React.Component {
  handleClick = (item) => {
    this.props.onSelect(item);
  };

  render() {
    return <ul>{this.props.items.map((i) => <Item key={i.id} item={i} onClick={this.handleClick} />)}</ul>;
  }
}

function Item({ item, onClick }) {
  return <li onClick={() => onClick(item)}>{item.name}</li>;
}

const config = { retries: 3 };
let counter = 0;
