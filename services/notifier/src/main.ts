import { runService } from '@pl/telemetry';
import { startNotifier } from './app';
import { loadConfig } from './config';

runService({ name: 'notifier', loadConfig: () => loadConfig(), start: startNotifier });
