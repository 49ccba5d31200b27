/** Hands a file the app fetched (a CSV statement or report) to the browser to save, under `filename`. */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.click();
  // The browser has taken the file once the click is handled; the object URL would otherwise live as long as the page.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
