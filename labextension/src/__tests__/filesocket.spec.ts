import { FileSocket, fileSocketUrl, ISocketSettings } from '../filesocket';
import { FileApiError } from '../fileproto';

/** A WebSocket double: records frames, lets the test open, answer and close it. */
class FakeSocket {
  static made: FakeSocket[] = [];
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: (() => void) | null = null;

  constructor(readonly url: string) {
    FakeSocket.made.push(this);
  }

  send(frame: string): void {
    this.sent.push(JSON.parse(frame));
  }

  close(): void {
    this.readyState = 3;
    this.onclose?.();
  }

  open(): void {
    this.readyState = 1;
    this.onopen?.();
  }

  reply(data: Record<string, unknown>): void {
    this.onmessage?.({ data: JSON.stringify(data) });
  }
}

function settings(extra: Partial<ISocketSettings> = {}): ISocketSettings {
  return {
    wsUrl: 'ws://host/hub/user/a%40b/',
    token: '',
    appendToken: false,
    WebSocket: FakeSocket as unknown as typeof WebSocket,
    ...extra
  };
}

const tick = (): Promise<void> => new Promise(resolve => setTimeout(resolve, 0));

beforeEach(() => {
  FakeSocket.made = [];
});

describe('fileSocketUrl', () => {
  it('is under the base_url, with the token only when Lab appends tokens', () => {
    expect(fileSocketUrl(settings())).toBe('ws://host/hub/user/a%40b/jupyter-operator/files');
    expect(fileSocketUrl(settings({ wsUrl: 'ws://host' }))).toBe('ws://host/jupyter-operator/files');
    expect(fileSocketUrl(settings({ token: 't&1', appendToken: true }))).toBe(
      'ws://host/hub/user/a%40b/jupyter-operator/files?token=t%261'
    );
    expect(fileSocketUrl(settings({ token: 'secret', appendToken: false }))).not.toContain('secret');
  });
});

describe('FileSocket', () => {
  it('matches replies to requests by request_id, in any order', async () => {
    const client = new FileSocket(settings());
    const first = client.request({ type: 'file_list', workspace: 'default' });
    const second = client.request({ type: 'file_read', workspace: 'default', path: 'a.txt' });
    expect(FakeSocket.made).toHaveLength(1); // one connection for both
    const socket = FakeSocket.made[0];
    socket.open();
    await tick();
    expect(socket.sent.map(m => [m.type, m.request_id])).toEqual([
      ['file_list', 'r1'],
      ['file_read', 'r2']
    ]);
    socket.reply({ type: 'file_read_result', request_id: 'r2', content_b64: '' });
    socket.reply({ type: 'file_list_result', request_id: 'r1', items: [] });
    expect((await first).type).toBe('file_list_result');
    expect((await second).type).toBe('file_read_result');
  });

  it('rejects with the protocol code on an error reply', async () => {
    const client = new FileSocket(settings());
    const read = client.request({ type: 'file_read', workspace: 'default', path: 'big.txt' });
    FakeSocket.made[0].open();
    await tick();
    FakeSocket.made[0].reply({ type: 'error', request_id: 'r1', code: 'file_too_large', message: 'm' });
    await expect(read).rejects.toMatchObject({ code: 'file_too_large', serverMessage: 'm' });
  });

  it('ignores unmatched frames', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const client = new FileSocket(settings());
    const list = client.request({ type: 'file_list', workspace: 'default' });
    FakeSocket.made[0].open();
    await tick();
    FakeSocket.made[0].reply({ type: 'file_list_result', request_id: 'other' });
    FakeSocket.made[0].onmessage?.({ data: 'not json' });
    FakeSocket.made[0].reply({ type: 'file_list_result', request_id: 'r1', items: [] });
    expect((await list).type).toBe('file_list_result');
    expect(warn).toHaveBeenCalledTimes(2);
    warn.mockRestore();
  });

  it('fails pending requests when the connection drops, and reconnects on the next one', async () => {
    const client = new FileSocket(settings());
    const lost = client.request({ type: 'file_list', workspace: 'default' });
    FakeSocket.made[0].open();
    await tick();
    FakeSocket.made[0].close();
    await expect(lost).rejects.toBeInstanceOf(FileApiError);
    await expect(lost).rejects.toMatchObject({ code: 'connection_lost' });
    const again = client.request({ type: 'capabilities' });
    expect(FakeSocket.made).toHaveLength(2);
    FakeSocket.made[1].open();
    await tick();
    FakeSocket.made[1].reply({ type: 'capabilities_result', request_id: 'r2' });
    expect((await again).type).toBe('capabilities_result');
  });

  it('a connection that never opens fails the request', async () => {
    const client = new FileSocket(settings());
    const never = client.request({ type: 'capabilities' });
    FakeSocket.made[0].close();
    await expect(never).rejects.toMatchObject({ code: 'connection_lost' });
  });

  it('refuses requests after dispose', async () => {
    const client = new FileSocket(settings());
    client.dispose();
    await expect(client.request({ type: 'capabilities' })).rejects.toMatchObject({
      code: 'connection_lost'
    });
  });
});
