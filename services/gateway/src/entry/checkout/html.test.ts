import { escapeHtml, html, trusted } from './html';

describe('html template', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const name = `<script>alert("x")</script>&'`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>',
    );
  });

  it('nests markup it built itself and trusted markup without escaping it again', () => {
    const inner = html`<b>${'a&b'}</b>`;
    expect(html`<p>${inner}${trusted('<svg></svg>')}</p>`.value).toBe('<p><b>a&amp;b</b><svg></svg></p>');
  });

  it('renders lists and skips null, undefined and false', () => {
    expect(html`<ul>${['x', '<y>'].map((s) => html`<li>${s}</li>`)}</ul>${null}${undefined}${false}${0}`.value).toBe(
      '<ul><li>x</li><li>&lt;y&gt;</li></ul>0',
    );
  });

  it('escapeHtml leaves plain text alone', () => {
    expect(escapeHtml('Кофе 1 000,00 ₽')).toBe('Кофе 1 000,00 ₽');
  });
});
