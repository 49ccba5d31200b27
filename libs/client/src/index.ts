export { authHeaders, createClient } from './client';
export type { ApiClient, ApiErrorBody, CreateClientOptions, Credentials, Schema } from './client';
// The generated types of docs/openapi.json: paths, operations, components and the rest.
export type * from './schema';
