export { authHeaders, createClient } from './client';
export type { ApiClient, ApiErrorBody, CreateClientOptions, Credentials, Schema } from './client';
export type { components, operations, paths } from './schema';
