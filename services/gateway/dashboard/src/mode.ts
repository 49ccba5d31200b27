import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Mode } from '@pl/contracts';
import { store, stored } from './storage';

export type { Mode };
const STORAGE_KEY = 'dashboard.mode';

/** The mode this browser was last switched to; live when it never was (live is what a session has without the header). */
export const initialMode = (): Mode => (stored(STORAGE_KEY) === 'test' ? 'test' : 'live');

export const rememberMode = (mode: Mode): void => store(STORAGE_KEY, mode);

export interface ModeState {
  mode: Mode;
  setMode: (mode: Mode) => void;
}

export const ModeContext = createContext<ModeState>({ mode: 'live', setMode: () => undefined });
/** The mode the dashboard shows and acts in: links and deliveries are per mode, shops and API keys are shared. */
export const useMode = (): ModeState => useContext(ModeContext);
