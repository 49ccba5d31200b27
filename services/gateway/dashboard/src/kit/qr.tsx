import QRCode from 'qrcode';
import { useEffect, useRef } from 'preact/hooks';

/** The QR code of a URL, drawn on a canvas by `qrcode` (no image request, nothing inline for the CSP to refuse). */
export function Qr({ text, label }: { text: string; label: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (ref.current) void QRCode.toCanvas(ref.current, text, { width: 200, margin: 2, errorCorrectionLevel: 'M' });
  }, [text]);
  return <canvas ref={ref} class="qr" role="img" aria-label={label} width={200} height={200} data-testid="qr" />;
}
