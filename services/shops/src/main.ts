import { runService } from '@pl/telemetry';
import { startShops } from './app';
import { loadConfig } from './config';

runService({ name: 'shops', loadConfig: () => loadConfig(), start: startShops });
