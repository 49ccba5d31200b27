/** Markup that is already safe to put in a page: built by {@link html} or trusted (our own SVG). */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for element content and quoted attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

/**
 * Merchant text (a shop name, a description) in its own bidirectional isolate. Without it a right-to-left
 * name, or one that ends in digits or punctuation, reorders the words of our sentence around it; the text
 * rule already refuses the override and isolate controls that could do worse.
 */
export const isolated = (text: string): SafeHtml => html`<bdi>${text}</bdi>`;

/** {@link isolated} for places that hold text, not markup (`<title>`): FIRST STRONG ISOLATE .. POP DIRECTIONAL ISOLATE. */
export const isolatedText = (text: string): string => `\u2068${text}\u2069`;

/** Marks markup from a trusted producer (never from link or shop data) as safe. */
export const trusted = (markup: string): SafeHtml => new SafeHtml(markup);

type Part = SafeHtml | string | number | null | undefined | false | readonly Part[];

const render = (part: Part): string => {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof SafeHtml) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
};

/**
 * Template tag for markup: every interpolated value is escaped unless it is itself SafeHtml, so shop
 * names and descriptions (merchant input) can never become markup. `null`, `undefined` and `false`
 * render nothing, which keeps conditionals short.
 */
export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}
