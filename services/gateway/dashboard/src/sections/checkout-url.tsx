import { useI18n } from '../i18n';
import { CopyField } from '../kit/copy';
import { Qr } from '../kit/qr';

/** The buyer's address of a link: to copy, or to scan from a phone. */
export function CheckoutUrl({ url }: { url: string }) {
  const { t } = useI18n();
  return (
    <>
      <CopyField id="checkout-url" label={t.checkoutUrl} value={url} />
      <Qr text={url} label={t.qrLabel} />
    </>
  );
}
