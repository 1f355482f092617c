/**
 * A strict reader for the XML the CLI writes (JUnit reports): an optional declaration, then one element tree with
 * attributes, text, self-closing elements and the five predefined entities plus numeric character references. It
 * throws on anything not well-formed (mismatched or unclosed tags, a duplicate attribute, a raw `<` or `&`, a
 * character XML 1.0 does not allow), so a test can assert that a report parses and then look at its structure.
 */

export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly XmlElement[];
  /** The text directly inside the element, entities decoded. */
  readonly text: string;
}

const NAME = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

function decode(raw: string, at: number): string {
  if (raw.includes("<")) throw new Error(`raw < at ${at}`);
  return raw.replace(/&([^;]*);|&/g, (m, ref?: string) => {
    if (ref === undefined) throw new Error(`raw & at ${at}`);
    if (ref.startsWith("#x")) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith("#")) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    const v = ENTITIES[ref];
    if (v === undefined) throw new Error(`unknown entity &${ref}; at ${at}`);
    return v;
  });
}

export function parseXml(text: string): XmlElement {
  if (FORBIDDEN.test(text)) throw new Error("a character XML 1.0 does not allow");
  let i = 0;
  const skipSpace = (): void => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const name = (): string => {
    NAME.lastIndex = i;
    const m = NAME.exec(text);
    if (m === null) throw new Error(`expected a name at ${i}`);
    i = NAME.lastIndex;
    return m[0];
  };
  const element = (): XmlElement => {
    if (text[i] !== "<") throw new Error(`expected < at ${i}`);
    i++;
    const tag = name();
    const attributes: Record<string, string> = {};
    for (;;) {
      skipSpace();
      if (text.startsWith("/>", i)) {
        i += 2;
        return { name: tag, attributes, children: [], text: "" };
      }
      if (text[i] === ">") {
        i++;
        break;
      }
      const attr = name();
      if (Object.hasOwn(attributes, attr)) throw new Error(`duplicate attribute ${attr}`);
      skipSpace();
      if (text[i] !== "=") throw new Error(`expected = at ${i}`);
      i++;
      skipSpace();
      const quote = text[i];
      if (quote !== '"' && quote !== "'") throw new Error(`expected a quoted value at ${i}`);
      const end = text.indexOf(quote, i + 1);
      if (end < 0) throw new Error("unterminated attribute value");
      // Attribute-value normalization: literal line breaks and tabs become spaces; references survive it.
      attributes[attr] = decode(text.slice(i + 1, end).replace(/[\t\n\r]/g, " "), i);
      i = end + 1;
    }
    const children: XmlElement[] = [];
    let content = "";
    for (;;) {
      const lt = text.indexOf("<", i);
      if (lt < 0) throw new Error(`<${tag}> is not closed`);
      content += decode(text.slice(i, lt), i);
      i = lt;
      if (text.startsWith("</", i)) {
        i += 2;
        const closing = name();
        if (closing !== tag) throw new Error(`</${closing}> closes <${tag}>`);
        skipSpace();
        if (text[i] !== ">") throw new Error(`expected > at ${i}`);
        i++;
        return { name: tag, attributes, children, text: content };
      }
      children.push(element());
    }
  };
  if (text.startsWith("<?xml")) {
    const end = text.indexOf("?>");
    if (end < 0) throw new Error("unterminated declaration");
    i = end + 2;
  }
  skipSpace();
  const root = element();
  skipSpace();
  if (i !== text.length) throw new Error(`content after the root element at ${i}`);
  return root;
}

/** Every descendant element named `name`, in document order. */
export function elementsNamed(root: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const visit = (e: XmlElement): void => {
    if (e.name === name) out.push(e);
    e.children.forEach(visit);
  };
  visit(root);
  return out;
}
