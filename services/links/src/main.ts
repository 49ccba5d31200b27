import { runService } from '@pl/telemetry';
import { startLinks } from './app';
import { loadConfig } from './config';

runService({ name: 'links', loadConfig: () => loadConfig(), start: startLinks });
