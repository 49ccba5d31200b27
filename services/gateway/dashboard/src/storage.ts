/**
 * This browser's remembered choices (language, mode). Storage may be off (privacy settings): then nothing is
 * remembered and the dashboard works for this visit alone.
 */
export function stored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function store(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Not remembered then; the choice still holds for this visit.
  }
}
