import { runService } from '@pl/telemetry';
import { startGateway } from './app';
import { loadConfig } from './config';

runService({ name: 'gateway', loadConfig: () => loadConfig(), start: startGateway });
