import { publishedSoFar, publishSoon } from './publish-batch';

describe('publish batch', () => {
  it('sends everything queued in one turn together, after the turn', async () => {
    const sent: string[] = [];
    publishSoon(() => sent.push('a'));
    publishSoon(() => sent.push('b'));
    expect(sent).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual(['a', 'b']);
  });

  it('tells a caller about to close its connection when what was queued so far has been sent', async () => {
    const sent: string[] = [];
    publishSoon(() => sent.push('reply'));
    await publishedSoFar();
    expect(sent).toEqual(['reply']);
    // Nothing queued: nothing to wait for.
    await expect(publishedSoFar()).resolves.toBeUndefined();
  });

  it('sends the rest of a batch when one send throws', async () => {
    const sent: string[] = [];
    publishSoon(() => {
      throw new Error('connection closed');
    });
    publishSoon(() => sent.push('next'));
    await publishedSoFar();
    expect(sent).toEqual(['next']);
  });
});
