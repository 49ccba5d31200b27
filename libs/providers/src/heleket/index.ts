export { heleketProvider, type HeleketConfig, type HeleketProvider } from './heleket.provider';
export { SERVICES_TTL_MS, type HeleketNetworkService } from './services-list';
