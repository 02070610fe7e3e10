// A small XML reader for Pascal VOC annotation files: elements, attributes and text, with
// comments, declarations, doctypes and CDATA understood. Not a general XML parser (no namespaces,
// no DTD entities), which VOC files do not use.

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/** Malformed XML, with the 1-based line where it was noticed. */
export class XmlError extends Error {
  readonly line: number;
  constructor(message: string, line: number) {
    super(message);
    this.name = 'XmlError';
    this.line = line;
  }
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10));
    return ENTITIES[name] ?? whole;
  });
}

/**
 * Parses a document and answers its root element. `opened` is told of each element as it opens, at
 * its depth (the root's is 0), and may end the parse by throwing.
 */
export function parseXml(source: string, opened?: (element: XmlElement, depth: number) => void): XmlElement {
  const lineAt = (index: number) => source.slice(0, index).split('\n').length;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let i = 0;
  while (i < source.length) {
    const lt = source.indexOf('<', i);
    const textEnd = lt < 0 ? source.length : lt;
    if (textEnd > i && stack.length > 0) stack[stack.length - 1]!.text += decodeEntities(source.slice(i, textEnd));
    else if (textEnd > i && source.slice(i, textEnd).trim() !== '') throw new XmlError('text outside the root element', lineAt(i));
    if (lt < 0) break;
    const skip = (open: string, close: string): boolean => {
      if (!source.startsWith(open, lt)) return false;
      const end = source.indexOf(close, lt + open.length);
      if (end < 0) throw new XmlError(`unterminated ${open}`, lineAt(lt));
      if (open === '<![CDATA[' && stack.length > 0) stack[stack.length - 1]!.text += source.slice(lt + open.length, end);
      i = end + close.length;
      return true;
    };
    if (skip('<!--', '-->') || skip('<![CDATA[', ']]>') || skip('<?', '?>') || skip('<!', '>')) continue;
    const gt = source.indexOf('>', lt);
    if (gt < 0) throw new XmlError('unterminated tag', lineAt(lt));
    const tag = source.slice(lt + 1, gt);
    i = gt + 1;
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      const open = stack.pop();
      if (!open || open.name !== name) throw new XmlError(`closing tag </${name}> does not match <${open?.name ?? ''}>`, lineAt(lt));
      continue;
    }
    const selfClosing = tag.endsWith('/');
    const body = selfClosing ? tag.slice(0, -1) : tag;
    const nameMatch = /^\s*([^\s/>]+)/.exec(body);
    if (!nameMatch) throw new XmlError('a tag without a name', lineAt(lt));
    const attributes: Record<string, string> = {};
    for (const m of body.slice(nameMatch[0].length).matchAll(/([^\s=]+)\s*=\s*("([^"]*)"|'([^']*)')/g)) {
      attributes[m[1]!] = decodeEntities(m[3] ?? m[4] ?? '');
    }
    const element: XmlElement = { name: nameMatch[1]!, attributes, children: [], text: '' };
    opened?.(element, stack.length);
    if (stack.length > 0) stack[stack.length - 1]!.children.push(element);
    else if (root) throw new XmlError('a second root element', lineAt(lt));
    else root = element;
    if (!selfClosing) stack.push(element);
  }
  if (stack.length > 0) throw new XmlError(`<${stack[stack.length - 1]!.name}> is never closed`, lineAt(source.length));
  if (!root) throw new XmlError('no root element', 1);
  return root;
}

export const child = (e: XmlElement, name: string): XmlElement | undefined => e.children.find((c) => c.name === name);
export const childText = (e: XmlElement, name: string): string | undefined => child(e, name)?.text.trim();
