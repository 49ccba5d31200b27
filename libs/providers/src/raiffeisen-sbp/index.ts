export { raiffeisenSbpProvider, type RaiffeisenSbpConfig } from './raiffeisen-sbp.provider';
export { SIGNATURE_HEADER as RAIFFEISEN_SIGNATURE_HEADER } from './callback';
