import { createLogger } from '@pl/telemetry';
import { loadConfig } from './config';
import { migrateGateway } from './data/migrate';

/** CLI: applies the gateway's pending migrations, then exits. */
const config = loadConfig();
const log = createLogger('gateway-migrate', config.LOG_LEVEL);
migrateGateway(config.DATABASE_URL, log).then(
  () => process.exit(0),
  (err: unknown) => {
    log.fatal({ err }, 'migration failed');
    process.exit(1);
  },
);
