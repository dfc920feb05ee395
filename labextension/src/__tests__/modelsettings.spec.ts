import { endpointRows, IEndpointRow, planSync, readRows } from '../modelsettings';

const local: IEndpointRow = { name: 'local', base_url: 'http://localhost:11434/v1', model: 'qwen', key: 'none', source: 'saved' };
const typed: IEndpointRow = { name: 'typed', base_url: 'https://api.example.com/v1', model: 'm', key: 'stored', source: 'saved' };
const configured: IEndpointRow = { name: 'team', base_url: 'https://team.example/v1', model: 't', key: '$TEAM_KEY', source: 'config' };

describe('planSync: an edit of the models setting, as what it asks of the server', () => {
  it('adds a new endpoint, its key named by a variable of the server', () => {
    const plan = planSync([local], [local, { name: 'env', base_url: 'http://h/v1', model: 'x', key: '$MY_KEY' }]);
    expect(plan).toEqual({ remove: [], add: [{ name: 'env', base_url: 'http://h/v1', model: 'x', key_env: 'MY_KEY' }], refused: [] });
  });

  it('adds an endpoint without a key for "none"', () => {
    expect(planSync([], [local]).add).toEqual([{ name: 'local', base_url: local.base_url, model: 'qwen' }]);
  });

  it('removes a saved endpoint that is gone from the setting', () => {
    expect(planSync([local, typed], [typed])).toEqual({ remove: ['local'], add: [], refused: [] });
  });

  it('never removes a name the setting did not list before (a stale copy of another page)', () => {
    expect(planSync([local], [local])).toEqual({ remove: [], add: [], refused: [] });
  });

  it('refuses a new endpoint with a stored key: keys are typed only in the panel', () => {
    const plan = planSync([], [{ ...typed }]);
    expect(plan.add).toEqual([]);
    expect(plan.refused[0]).toMatch(/typed only in the Operator panel/);
  });

  it('refuses a key given as text: only "$VARIABLE", "stored" or "none"', () => {
    const plan = planSync([], [{ ...local, key: 'sk-secret' }]);
    expect(plan.add).toEqual([]);
    expect(plan.refused[0]).not.toContain('sk-secret');
  });

  it('removes and adds again an endpoint whose fields changed', () => {
    const moved = { ...local, base_url: 'http://other:8000/v1' };
    expect(planSync([local], [moved])).toEqual({ remove: ['local'], add: [{ name: 'local', base_url: moved.base_url, model: 'qwen' }], refused: [] });
  });

  it('refuses changing an endpoint that keeps a stored key (removing it would lose the key)', () => {
    const changed = { ...typed, model: 'other' };
    const plan = planSync([typed], [changed]);
    expect(plan.remove).toEqual([]);
    expect(plan.add).toEqual([]);
    expect(plan.refused.length).toBe(1);
  });

  it('leaves configured endpoints to the server configuration', () => {
    expect(planSync([configured], []).remove).toEqual([]);
    expect(planSync([configured], [{ ...configured, model: 'x' }]).add).toEqual([]);
    expect(planSync([configured], []).refused[0]).toMatch(/server's configuration/);
  });

  it('refuses a name listed twice', () => {
    expect(planSync([], [local, local]).refused[0]).toMatch(/listed twice/);
  });
});

describe('the rows of the setting', () => {
  it('mirror the server list without anything but where the key comes from', () => {
    const rows = endpointRows([
      { name: 'a', base_url: 'http://a/v1', model: 'm', endpoint: 'a', label: 'm at a', key: 'stored', source: 'saved', price: null }
    ]);
    expect(rows).toEqual([{ name: 'a', base_url: 'http://a/v1', model: 'm', key: 'stored', source: 'saved' }]);
  });

  it('read a hand-edited value leniently', () => {
    expect(readRows(undefined)).toEqual([]);
    expect(readRows([{ name: ' a ', base_url: 'http://a/v1', model: 'm' }, 3, null])).toEqual([
      { name: 'a', base_url: 'http://a/v1', model: 'm', key: 'none', source: 'saved' }
    ]);
  });
});
