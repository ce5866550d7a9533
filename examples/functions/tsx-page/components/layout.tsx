import type { Child } from "../jsx/jsx-runtime.ts";

export function Layout(props: { title: string; children?: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>{props.title}</title>
      </head>
      <body>
        <h1>{props.title}</h1>
        {props.children}
      </body>
    </html>
  );
}
