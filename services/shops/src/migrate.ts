import { commonEnv, parseConfig } from '@pl/config';
import { createLogger } from '@pl/telemetry';
import { migrateShops } from './data/migrate';

const { DATABASE_URL, LOG_LEVEL } = parseConfig({ DATABASE_URL: commonEnv.DATABASE_URL, LOG_LEVEL: commonEnv.LOG_LEVEL });
const log = createLogger('shops-migrate', LOG_LEVEL);

migrateShops(DATABASE_URL, log).then(
  () => process.exit(0),
  (err: unknown) => {
    log.error({ err }, 'shops migrations failed');
    process.exit(1);
  },
);
