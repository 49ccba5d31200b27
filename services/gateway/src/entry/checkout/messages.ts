import type { Language } from './language';

/** Every text of the checkout page, per language. Functions take already formatted values. */
export interface Messages {
  htmlTitle: (shop: string) => string;
  languageNav: string;
  paymentTo: string;
  description: string;
  orderAmount: string;
  fee: string;
  total: string;
  totalPaid: string;
  totalFinal: string;
  feeDependsOnMethod: string;
  timeLeft: string;
  payBefore: (when: string) => string;
  chooseMethod: string;
  sbpName: string;
  sbpHint: string;
  cryptoGroup: string;
  showDetails: string;
  changeMethod: string;
  selecting: string;
  selectFailed: string;
  detailsHeading: string;
  sbpInstructions: string;
  cryptoInstructions: (amount: string, chain: string) => string;
  sbpPaymentId: string;
  depositAddress: string;
  amountToSend: string;
  network: string;
  qrLabel: (method: string) => string;
  openInApp: string;
  openInWallet: string;
  copy: string;
  copied: string;
  copyFailed: string;
  waiting: string;
  paidHeading: string;
  paidText: string;
  paidAt: string;
  chooseFirst: string;
  expiredHeading: string;
  expiredText: string;
  canceledHeading: string;
  canceledText: string;
  failedHeading: string;
  failedText: string;
  noPayment: string;
  /** The link back to the merchant's site, on a link that is over (when the merchant gave a return_url). */
  returnToShop: string;
  /** On a paid page with a return_url: the page goes there by itself. */
  returningToShop: string;
  statusChanged: string;
  notFoundTitle: string;
  notFoundText: string;
  errorTitle: string;
  errorText: string;
  noScript: string;
  footer: string;
  /** The banner on a test link's page: no real money moves here. */
  testModeTitle: string;
  testModeText: string;
  /** The test link's stand-in for the provider, under the payment details. */
  simulateLabel: string;
  simulatePaid: string;
  simulateFailed: string;
  simulating: string;
  simulateError: string;
  /** Crypto: coins sent on another network are lost. */
  networkWarning: (chain: string) => string;
  /** Heleket `process` / `confirm_check`: the payment is seen and waits for the network's confirmations. */
  confirming: string;
  /** Heleket `wrong_amount_waiting`: part arrived; the rest is to be sent to the same address. */
  remainderHeading: string;
  remainderText: (amount: string) => string;
  remainingToSend: string;
  /** Select answered 503: this method is down for now, the others may work. */
  methodUnavailableNow: string;
  /** Select answered 422: the shop or the provider does not take this method for this payment. */
  methodRefused: string;
  /** Neither the shop nor the providers offer anything now. */
  noMethods: string;
}

const ru: Messages = {
  htmlTitle: (shop) => `Оплата — ${shop}`,
  languageNav: 'Язык',
  paymentTo: 'Оплата заказа',
  description: 'Назначение',
  orderAmount: 'Сумма заказа',
  fee: 'Комиссия сервиса',
  total: 'К оплате',
  totalPaid: 'Оплачено',
  totalFinal: 'Сумма',
  feeDependsOnMethod: 'Комиссия зависит от способа оплаты.',
  timeLeft: 'Осталось времени',
  payBefore: (when) => `Оплатите до ${when}`,
  chooseMethod: 'Способ оплаты',
  sbpName: 'СБП — Система быстрых платежей',
  sbpHint: 'Через приложение вашего банка',
  cryptoGroup: 'Криптовалюта',
  showDetails: 'Показать реквизиты',
  changeMethod: 'Сменить способ оплаты',
  selecting: 'Готовим реквизиты…',
  selectFailed: 'Не удалось выбрать способ оплаты. Попробуйте ещё раз.',
  detailsHeading: 'Реквизиты для оплаты',
  sbpInstructions: 'Отсканируйте QR-код камерой телефона или в приложении банка и подтвердите платёж.',
  cryptoInstructions: (amount, chain) => `Отправьте ровно ${amount} в сети ${chain} на адрес ниже. Другая сумма или сеть не будут зачислены.`,
  sbpPaymentId: 'Идентификатор платежа СБП',
  depositAddress: 'Адрес для перевода',
  amountToSend: 'Сумма к отправке',
  network: 'Сеть',
  qrLabel: (method) => `QR-код для оплаты: ${method}`,
  openInApp: 'Открыть в приложении банка',
  openInWallet: 'Открыть в кошельке',
  copy: 'Копировать',
  copied: 'Скопировано',
  copyFailed: 'Не удалось скопировать — выделите текст вручную',
  waiting: 'Ждём поступления платежа. Страница обновится сама.',
  paidHeading: 'Оплата получена',
  paidText: 'Платёж зачислен. Спасибо! Эту страницу можно закрыть.',
  paidAt: 'Время оплаты',
  chooseFirst: 'Выберите способ оплаты.',
  expiredHeading: 'Срок оплаты истёк',
  expiredText: 'Эта ссылка больше не принимает платежи. Если вы ещё хотите оплатить заказ, вернитесь в магазин за новой ссылкой.',
  canceledHeading: 'Платёж отменён',
  canceledText: 'Магазин отменил этот платёж. Если это ошибка, свяжитесь с магазином.',
  failedHeading: 'Платёж не прошёл',
  failedText: 'Платёжная система отклонила платёж. Вернитесь в магазин, чтобы попробовать снова.',
  noPayment: 'Оплата по этой ссылке невозможна.',
  returnToShop: 'Вернуться в магазин',
  returningToShop: 'Через несколько секунд мы вернём вас в магазин.',
  statusChanged: 'Статус платежа изменился',
  notFoundTitle: 'Ссылка на оплату не найдена',
  notFoundText: 'Проверьте адрес страницы или запросите у магазина новую ссылку.',
  errorTitle: 'Страница временно недоступна',
  errorText: 'Попробуйте обновить страницу через минуту.',
  noScript: 'Для выбора способа оплаты включите JavaScript.',
  footer: 'Защищённая страница оплаты',
  testModeTitle: 'Тестовый режим',
  testModeText: 'Это тестовая ссылка: настоящие деньги не списываются, результат оплаты только моделируется.',
  simulateLabel: 'Смоделировать ответ платёжной системы',
  simulatePaid: 'Смоделировать успешную оплату',
  simulateFailed: 'Смоделировать неудачную оплату',
  simulating: 'Моделируем…',
  simulateError: 'Не удалось смоделировать оплату. Попробуйте ещё раз.',
  networkWarning: (chain) => `Отправляйте только в сети ${chain}. Монеты, отправленные в другой сети, будут потеряны.`,
  confirming: 'Платёж получен и ждёт подтверждений сети. Страница обновится сама.',
  remainderHeading: 'Получена часть оплаты',
  remainderText: (amount) => `Отправьте оставшиеся ${amount} на тот же адрес.`,
  remainingToSend: 'Осталось отправить',
  methodUnavailableNow: 'Этот способ оплаты сейчас недоступен. Выберите другой или попробуйте позже.',
  methodRefused: 'Этим способом нельзя оплатить этот заказ. Выберите другой.',
  noMethods: 'Сейчас нет доступных способов оплаты. Попробуйте позже или свяжитесь с магазином.',
};

const en: Messages = {
  htmlTitle: (shop) => `Payment — ${shop}`,
  languageNav: 'Language',
  paymentTo: 'Payment for your order',
  description: 'Purpose',
  orderAmount: 'Order amount',
  fee: 'Service fee',
  total: 'Total to pay',
  totalPaid: 'Amount paid',
  totalFinal: 'Amount',
  feeDependsOnMethod: 'The fee depends on the payment method.',
  timeLeft: 'Time left',
  payBefore: (when) => `Pay before ${when}`,
  chooseMethod: 'Payment method',
  sbpName: 'SBP — Faster Payments System',
  sbpHint: 'With your Russian bank app',
  cryptoGroup: 'Cryptocurrency',
  showDetails: 'Show payment details',
  changeMethod: 'Change payment method',
  selecting: 'Preparing payment details…',
  selectFailed: 'Could not select this payment method. Please try again.',
  detailsHeading: 'Payment details',
  sbpInstructions: 'Scan the QR code with your phone camera or bank app and confirm the payment.',
  cryptoInstructions: (amount, chain) =>
    `Send exactly ${amount} on the ${chain} network to the address below. A different amount or network will not be credited.`,
  sbpPaymentId: 'SBP payment ID',
  depositAddress: 'Deposit address',
  amountToSend: 'Amount to send',
  network: 'Network',
  qrLabel: (method) => `QR code to pay with ${method}`,
  openInApp: 'Open in bank app',
  openInWallet: 'Open in wallet',
  copy: 'Copy',
  copied: 'Copied',
  copyFailed: 'Could not copy — please select the text',
  waiting: 'Waiting for your payment. This page updates by itself.',
  paidHeading: 'Payment received',
  paidText: 'Your payment has been received. Thank you! You can close this page.',
  paidAt: 'Paid at',
  chooseFirst: 'Choose a payment method.',
  expiredHeading: 'This payment link has expired',
  expiredText: 'The link no longer accepts payments. If you still want to pay, ask the shop for a new link.',
  canceledHeading: 'This payment was canceled',
  canceledText: 'The shop canceled this payment. If this is a mistake, please contact the shop.',
  failedHeading: 'The payment failed',
  failedText: 'The payment provider declined the payment. Go back to the shop to try again.',
  noPayment: 'This link can no longer be paid.',
  returnToShop: 'Return to the shop',
  returningToShop: 'We will take you back to the shop in a few seconds.',
  statusChanged: 'The payment status changed',
  notFoundTitle: 'Payment link not found',
  notFoundText: 'Check the address of the page or ask the shop for a new payment link.',
  errorTitle: 'This page is temporarily unavailable',
  errorText: 'Please reload the page in a minute.',
  noScript: 'Turn on JavaScript to choose a payment method.',
  footer: 'Secure payment page',
  testModeTitle: 'Test mode',
  testModeText: 'This is a test link: no real money is charged, and the outcome of the payment is simulated.',
  simulateLabel: 'Simulate the payment provider',
  simulatePaid: 'Simulate successful payment',
  simulateFailed: 'Simulate failed payment',
  simulating: 'Simulating…',
  simulateError: 'Could not simulate the payment. Please try again.',
  networkWarning: (chain) => `Send only on the ${chain} network. Coins sent on another network are lost.`,
  confirming: 'Your payment has arrived and is waiting for network confirmations. This page updates by itself.',
  remainderHeading: 'Part of the payment arrived',
  remainderText: (amount) => `Send the remaining ${amount} to the same address.`,
  remainingToSend: 'Left to send',
  methodUnavailableNow: 'This payment method is unavailable for now. Choose another one or try again later.',
  methodRefused: 'This payment method cannot take this order. Choose another one.',
  noMethods: 'No payment method is available right now. Try again later or contact the shop.',
};

export const MESSAGES: Record<Language, Messages> = { ru, en };

/** The language names on the switch, each in its own language. */
export const LANGUAGE_NAMES: Record<Language, string> = { ru: 'Русский', en: 'English' };
