import { Router } from 'express';
import { openApiJson } from '@pl/openapi';
import { wrongMethod } from '../middlewares/not-found';

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document, generated from the contracts' zod schemas (libs/openapi) once, on the
 * first request. Public, like the API's documentation; docs/openapi.json is the same text, committed.
 */
export function openApiRoutes(): Router {
  let json: string | undefined;
  const router = Router();
  router
    .route('/')
    .get((_req, res) => {
      json ??= openApiJson();
      res.set('Cache-Control', 'public, max-age=300').type('application/json').send(json);
    })
    .all(wrongMethod(['GET']));
  return router;
}
