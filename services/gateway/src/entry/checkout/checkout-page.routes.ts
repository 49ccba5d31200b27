import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { parseCookie } from 'cookie';
import { HTTP_STATUS_BY_KIND, notFound } from '@pl/errors';
import { toLinkId } from '../../domain/link-commands';
import { requestIdOf } from '../http/context';
import type { HttpDeps } from '../http/deps';
import { toClientError } from '../http/middlewares/error-handler';
import { wrongMethod } from '../http/middlewares/not-found';
import { renderCheckoutMain, renderPanel, RETURN_AFTER_SECONDS } from './checkout-view';
import { chooseLanguage, fromAcceptLanguage, isLanguage, LANGUAGE_COOKIE, type Language } from './language';
import { isolatedText } from './html';
import { MESSAGES } from './messages';
import { renderDocument, renderMessagePage } from './page-layout';
import { loadCheckoutAssets } from './static-assets';

const YEAR_MS = 365 * 24 * 3600 * 1000;

/**
 * Only our own script, stylesheet and fetches; the QR is inline SVG and the favicon a data: URI.
 * No inline script or style at all, no frames, no plugins, no base or form tricks.
 */
function checkoutCsp(secure: boolean): string {
  const directives = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ];
  // Upgrading on plain http would break local runs; a public https deployment gets it.
  if (secure) directives.push('upgrade-insecure-requests');
  return directives.join('; ');
}

/**
 * `/p/{id}`: the buyer's checkout page, the fragment its script swaps in, a JSON status for polling,
 * and the page's own assets. Mounted after the select route on `/p`. These are the only HTML routes
 * of the gateway: anything that goes wrong here is a page in the buyer's language, never JSON.
 */
export function checkoutPageRoutes(deps: HttpDeps): Router {
  const assets = loadCheckoutAssets();
  const csp = checkoutCsp(deps.secureCookies);
  const router = Router();

  router.use((_req, res, next) => {
    res.set('Content-Security-Policy', csp);
    next();
  });

  const languageOf = (req: Request): Language =>
    chooseLanguage({
      query: req.query.lang,
      cookie: parseCookie(req.get('cookie') ?? '')[LANGUAGE_COOKIE],
      acceptLanguage: fromAcceptLanguage(req),
    });

  const sendHtml = (res: Response, status: number, lang: Language, body: string): void => {
    res.status(status).set({ 'Content-Type': 'text/html; charset=utf-8', 'Content-Language': lang, Vary: 'Accept-Language, Cookie' });
    res.send(body);
  };

  const sendErrorPage = (res: Response, lang: Language, e: unknown): void => {
    const error = toClientError(e, deps.log, res);
    const status = HTTP_STATUS_BY_KIND[error.kind];
    if (status === 503 || status === 429) res.set('Retry-After', '1');
    sendHtml(res, status, lang, renderMessagePage(lang, assets, status === 404 ? 'not_found' : 'error'));
  };

  router.get('/assets/:file', (req, res, next) => {
    const asset = assets.byName.get(req.params.file);
    if (!asset) {
      next();
      return;
    }
    // The page links each asset by content hash, so that exact version can be cached for good.
    const cache = req.query.v === asset.version ? 'public, max-age=31536000, immutable' : 'no-cache';
    res.set({ 'Content-Type': asset.contentType, 'Cache-Control': cache }).send(asset.body);
  });

  const page: RequestHandler = async (req, res) => {
    const lang = languageOf(req);
    if (isLanguage(req.query.lang)) {
      res.cookie(LANGUAGE_COOKIE, lang, { path: '/p', maxAge: YEAR_MS, sameSite: 'lax', httpOnly: true, secure: deps.secureCookies });
    }
    try {
      const view = await deps.links.publicGet(toLinkId(req.params.id), requestIdOf(res));
      const main = await renderCheckoutMain(view, lang, new Date());
      const title = MESSAGES[lang].htmlTitle(isolatedText(view.shop_name));
      const refresh = view.status === 'paid' && view.return_url !== null ? { url: view.return_url, seconds: RETURN_AFTER_SECONDS } : undefined;
      sendHtml(res, 200, lang, renderDocument({ lang, title, main, assets, withScript: view.status === 'pending', ...(refresh && { refresh }) }));
    } catch (e) {
      sendErrorPage(res, lang, e);
    }
  };
  router
    .route('/:id')
    .get(page)
    .all(wrongMethod(['GET']));

  // For the page's script: the panel as it is now (after a selection, or when the status changed).
  router
    .route('/:id/panel')
    .get(async (req, res) => {
      const lang = languageOf(req);
      const view = await deps.links.publicGet(toLinkId(req.params.id), requestIdOf(res));
      sendHtml(res, 200, lang, (await renderPanel(view, lang, new Date())).value);
    })
    .all(wrongMethod(['GET']));

  // For polling: the buyer-safe view (the same object `POST /p/{id}/select` answers).
  router
    .route('/:id/status')
    .get(async (req, res) => {
      res.json(await deps.links.publicGet(toLinkId(req.params.id), requestIdOf(res)));
    })
    .all(wrongMethod(['GET']));

  // Any other page under /p names nothing a buyer can open.
  router.get('/{*rest}', (req, res) => sendErrorPage(res, languageOf(req), notFound('No such page')));

  // A page path express cannot decode (`/p/%80`) fails before any route: it is the not-found page too, not the
  // API's JSON. The JSON routes (status, panel) keep the JSON error.
  const errorPage: ErrorRequestHandler = (err, req, res, next) => {
    if (res.headersSent || (req.method !== 'GET' && req.method !== 'HEAD') || /^\/[^/]+\/(status|panel)\/?$/.test(req.path)) next(err);
    else sendErrorPage(res, languageOf(req), err);
  };
  router.use(errorPage);

  return router;
}
