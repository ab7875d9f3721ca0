import { Emitter } from './events';

/** Options for a Widget. */
export interface WidgetOptions {
  id: string;
  size?: number;
}

export type Size = 'sm' | 'md' | 'lg';

export enum Color {
  Red,
  Green,
}

/**
 * A Widget renders itself into a container.
 */
export class Widget extends Emitter {
  private readonly opts: WidgetOptions;

  constructor(opts: WidgetOptions) {
    super();
    this.opts = opts;
  }

  /** Renders into el. */
  render(el: HTMLElement): void {
    el.appendChild(document.createElement('div'));
  }

  static create = (id: string) => new Widget({ id });
}

export const DEFAULT_SIZE = 3;

// Formats a size for display.
export const formatSize = (s: Size): string => {
  const helpers = { upper(x: string) { return x.toUpperCase(); } };
  return helpers.upper(s);
};

export function mount(w: Widget, el: HTMLElement) {
  w.render(el);
}
