import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The docs' relative links lead somewhere: every `[text](target)` and `![alt](target)` of the front
 * page, the manual (docs/), ARCHITECTURE.md, CONTRIBUTING.md and bench/ names a file or folder of the
 * repository, and a `#fragment` into a Markdown file names one of its headings (as GitHub makes their
 * anchors). Links in code (fenced blocks, `inline code`) are text, not links, and are left alone.
 */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PAGES = [
  "README.md",
  "ARCHITECTURE.md",
  "CONTRIBUTING.md",
  ...markdownIn("docs"),
  ...markdownIn("bench"),
];

describe("relative links in the docs", () => {
  it.each(PAGES)("%s links only to files and headings that exist", (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it("reads links as GitHub does: code is not a link, anchors are slugs of headings", () => {
    expect(
      linksIn("a [x](y.md#z) `[no](t.md)` ![i](p.png)\n```sh\n[no](u.md)\n```\n[w](https://e.com)"),
    ).toEqual(["y.md#z", "p.png", "https://e.com"]);
    expect(slug("OAuth 2.0 for integrations")).toBe("oauth-20-for-integrations");
    expect(slug("Receiving webhooks locally: `tessera webhooks listen`")).toBe(
      "receiving-webhooks-locally-tessera-webhooks-listen",
    );
    expect(slug("Lists: filters, paging, sort")).toBe("lists-filters-paging-sort");
    expect(anchorsOf("# A\n## B b\n```sh\n# not a heading\n```\n## A")).toEqual(["a", "b-b", "a-1"]);
  });
});

/** Each link of `page` that names nothing, with what is missing. */
function brokenLinks(page: string): string[] {
  const problems: string[] = [];
  for (const link of linksIn(read(page))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:…
    const [path = "", fragment] = link.split("#", 2);
    const target = path === "" ? page : join(dirname(page), decodeURI(path));
    if (relative(ROOT, join(ROOT, target)).startsWith("..")) {
      problems.push(`${link}: outside the repository`);
      continue;
    }
    if (!existsSync(join(ROOT, target))) {
      problems.push(`${link}: no such file`);
      continue;
    }
    if (fragment !== undefined && target.endsWith(".md") && statSync(join(ROOT, target)).isFile()) {
      if (!anchorsOf(read(target)).includes(fragment)) problems.push(`${link}: no such heading in ${target}`);
    }
  }
  return problems;
}

/** The targets of a page's links and images, outside code. */
function linksIn(markdown: string): string[] {
  const prose = withoutCode(markdown);
  return [...prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (match) => match[1]!,
  );
}

/** The anchors GitHub gives a page's headings, in order (a repeated one gets `-1`, `-2`…). */
function anchorsOf(markdown: string): string[] {
  const seen = new Map<string, number>();
  const anchors: string[] = [];
  for (const line of withoutCode(markdown, { keepInline: true }).split("\n")) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.push(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** GitHub's heading anchor: lowercase; punctuation but `-` and `_` dropped (markup with it); spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The page with fenced blocks blanked out, and inline code too unless `keepInline`. */
function withoutCode(markdown: string, options: { keepInline?: boolean } = {}): string {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    const opening = /^\s*(```+|~~~+)/.exec(line);
    if (fence) {
      if (opening && opening[1]!.startsWith(fence)) fence = undefined;
      lines.push("");
    } else if (opening) {
      fence = opening[1];
      lines.push("");
    } else lines.push(options.keepInline ? line : line.replace(/`[^`\n]*`/g, ""));
  }
  return lines.join("\n");
}

function markdownIn(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md") && !name.includes("node_modules"))
    .map((name) => join(folder, name))
    .sort();
}

function read(page: string): string {
  return readFileSync(join(ROOT, page), "utf8");
}
