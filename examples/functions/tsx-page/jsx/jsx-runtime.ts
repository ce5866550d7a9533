/**
 * A minimal automatic JSX runtime (`jsx`, `jsxs`, `Fragment`) that builds a tree,
 * and `renderToString` that turns it into escaped HTML. TypeScript and esbuild
 * import it as `<jsxImportSource>/jsx-runtime`.
 */
export type Child = Node | string | number | boolean | null | undefined | Child[];
type Props = Record<string, unknown> & { children?: Child };
type Component = (props: Props) => Node;

export interface Node {
  tag: string | Component | typeof Fragment;
  props: Props;
}

export const Fragment = Symbol("Fragment");
const VOID_ELEMENTS = new Set(["meta", "link", "br", "hr", "img", "input"]);

export function jsx(tag: Node["tag"], props: Props): Node {
  return { tag, props };
}
export const jsxs = jsx;

export function renderToString(child: Child): string {
  if (child === null || child === undefined || typeof child === "boolean") return "";
  if (Array.isArray(child)) return child.map(renderToString).join("");
  if (typeof child !== "object") return escape(String(child));
  const { tag, props } = child;
  if (tag === Fragment) return renderToString(props.children);
  if (typeof tag === "function") return renderToString(tag(props));
  let attributes = "";
  for (const [name, value] of Object.entries(props)) {
    if (name === "children" || value === undefined || value === null || value === false) continue;
    attributes += value === true ? ` ${name}` : ` ${name}="${escape(String(value))}"`;
  }
  if (VOID_ELEMENTS.has(tag as string)) return `<${String(tag)}${attributes}>`;
  return `<${String(tag)}${attributes}>${renderToString(props.children)}</${String(tag)}>`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

// deno-lint-ignore no-namespace
export namespace JSX {
  export type Element = Node;
  export interface IntrinsicElements {
    [name: string]: Record<string, unknown>;
  }
  export interface ElementChildrenAttribute {
    children: unknown;
  }
}
