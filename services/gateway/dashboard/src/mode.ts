import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Mode } from '@pl/contracts';

export type { Mode };
const STORAGE_KEY = 'dashboard.mode';

/** The mode this browser was last switched to; live when it never was (or storage is off). */
export function initialMode(): Mode {
  try {
    return localStorage.getItem(STORAGE_KEY) === 'test' ? 'test' : 'live';
  } catch {
    // Storage may be off (privacy settings): live, the mode a session has without the header.
    return 'live';
  }
}

export function rememberMode(mode: Mode): void {
  try {
    localStorage.setItem(STORAGE_KEY, mode);
  } catch {
    // Not remembered then; the switch still works for this visit.
  }
}

export interface ModeState {
  mode: Mode;
  setMode: (mode: Mode) => void;
}

export const ModeContext = createContext<ModeState>({ mode: 'live', setMode: () => undefined });
/** The mode the dashboard shows and acts in: links and deliveries are per mode, shops and API keys are shared. */
export const useMode = (): ModeState => useContext(ModeContext);
