import QRCode from 'qrcode';
import { escapeHtml, trusted, type SafeHtml } from './html';

/**
 * The provider's QR data as an inline SVG: drawn on the server, so the page needs no script or
 * image host for it, and a strict CSP holds (presentation attributes, no inline styles).
 */
export async function qrSvg(data: string, label: string): Promise<SafeHtml> {
  const svg = await QRCode.toString(data, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  const opening = `<svg class="qr-code" role="img" aria-label="${escapeHtml(label)}" focusable="false" `;
  return trusted(svg.trim().replace(/^<svg /, opening));
}
