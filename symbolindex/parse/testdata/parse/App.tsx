import React, { useState } from 'react';

type Props = { title: string };

/** Greeting shows a title. */
export function Greeting({ title }: Props) {
  return <h1 className="greeting">{title}</h1>;
}

// Counter counts clicks.
export const Counter = () => {
  const [n, setN] = useState(0);
  return <button onClick={() => setN(n + 1)}>{n}</button>;
};

export default function App(): JSX.Element {
  return (
    <div>
      <Greeting title="hi" />
      <Counter />
    </div>
  );
}
