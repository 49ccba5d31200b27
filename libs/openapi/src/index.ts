export { buildOpenApiDocument, errorCodesOf, openApiJson } from './document';
export { renderErrorsMarkdown } from './errors-doc';
export { OPERATIONS, type OperationSpec } from './operations';
