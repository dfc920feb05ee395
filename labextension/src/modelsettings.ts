/**
 * The model endpoints in JupyterLab's settings editor: the Operator plugin's `models` setting
 * lists the same endpoints as the Ask view's picker (name, base URL, model, where the key comes
 * from; never a key), and an endpoint added or removed there is added or removed on the server.
 *
 * The server's list (`agent/models`) is the source of truth and the setting is its mirror: the
 * server is where the model is called and the only place a typed key is kept (out of every
 * workspace), its list is shared by every page, `%operator model` and the command line, and
 * some of its endpoints come from the server's configuration, which no page may change. So an
 * edit of the setting is sent to the server as what it changed (the names added, removed or
 * altered since the setting was last written), and the setting is then written again from the
 * server's answer: whatever the server refused (a key to store, a configured endpoint, a bad
 * address) goes back to what the server holds, and a stale copy of the setting (another page
 * added an endpoint meanwhile) never removes what it does not know of.
 */
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ServerConnection } from '@jupyterlab/services';
import { JSONExt, ReadonlyPartialJSONValue } from '@lumino/coreutils';

import { addEndpoint, IEndpointBody, IModelEndpoint, IModelList, ModelPicker, removeEndpoint } from './askmodels';
import { OperatorRequestError } from './client';

/** The setting that mirrors the server's list. */
export const MODELS_SETTING = 'models';

/** One endpoint as the settings editor shows it. */
export interface IEndpointRow {
  name: string;
  base_url: string;
  model: string;
  /** Where the key comes from: "$VAR" (the server's environment), "stored" (typed in the
   * panel's form) or "none". */
  key: string;
  /** "config": set in the server's configuration (read-only here); "saved": added by a person. */
  source?: 'config' | 'saved';
}

/** What an edit of the setting asks of the server, and what it cannot do (one sentence each). */
export interface ISyncPlan {
  remove: string[];
  add: IEndpointBody[];
  refused: string[];
}

const KEY_ENV = /^\$([A-Za-z_][A-Za-z0-9_]*)$/;

/** The rows of the server's list. */
export function endpointRows(models: IModelEndpoint[]): IEndpointRow[] {
  return models.map(m => ({ name: m.name, base_url: m.base_url, model: m.model, key: m.key, source: m.source }));
}

/** The rows of a setting's value (entries that are not endpoints are left out). */
export function readRows(value: unknown): IEndpointRow[] {
  if (!Array.isArray(value)) {
    return [];
  }
  const rows: IEndpointRow[] = [];
  for (const entry of value) {
    if (entry && typeof entry === 'object' && typeof entry.name === 'string') {
      const text = (field: unknown) => (typeof field === 'string' ? field.trim() : '');
      const source = entry.source === 'config' ? 'config' : 'saved';
      rows.push({ name: entry.name.trim(), base_url: text(entry.base_url), model: text(entry.model), key: text(entry.key) || 'none', source });
    }
  }
  return rows;
}

function sameEndpoint(a: IEndpointRow, b: IEndpointRow): boolean {
  return a.base_url === b.base_url && a.model === b.model && a.key === b.key;
}

/** The body that adds `row`, or the sentence saying why it cannot be added from the settings. */
function addBody(row: IEndpointRow): IEndpointBody | string {
  const body: IEndpointBody = { name: row.name, base_url: row.base_url, model: row.model };
  const env = KEY_ENV.exec(row.key);
  if (env) {
    body.key_env = env[1];
  } else if (row.key === 'stored') {
    return `${row.name}: a key to store is typed only in the Operator panel's "Add model" form (the settings never hold a key).`;
  } else if (row.key !== 'none') {
    return `${row.name}: key is "$VARIABLE" (of the server's environment) or "none".`;
  }
  return body;
}

/**
 * What the edit from `before` (the setting as last written or seen) to `after` asks of the
 * server: names gone are removed, new names added, and an endpoint whose fields changed is
 * removed and added again (unless it keeps a stored key, which only the panel's form can give).
 * Configured endpoints are not changed from here.
 */
export function planSync(before: IEndpointRow[], after: IEndpointRow[]): ISyncPlan {
  const plan: ISyncPlan = { remove: [], add: [], refused: [] };
  const old = new Map(before.map(row => [row.name, row]));
  const seen = new Set<string>();
  for (const row of after) {
    if (seen.has(row.name)) {
      plan.refused.push(`${row.name}: listed twice (names are unique).`);
      continue;
    }
    seen.add(row.name);
    const was = old.get(row.name);
    if (was && sameEndpoint(was, row)) {
      continue;
    }
    if (was?.source === 'config') {
      plan.refused.push(`${row.name}: set in the server's configuration (c.OperatorAgent.models), not here.`);
      continue;
    }
    const body = addBody(row);
    if (typeof body === 'string') {
      plan.refused.push(body);
      continue;
    }
    if (was) {
      plan.remove.push(row.name);
    }
    plan.add.push(body);
  }
  for (const row of before) {
    if (!seen.has(row.name)) {
      if (row.source === 'config') {
        plan.refused.push(`${row.name}: set in the server's configuration (c.OperatorAgent.models), not here.`);
      } else {
        plan.remove.push(row.name);
      }
    }
  }
  return plan;
}

/** Keeps the `models` setting and the server's list in step (see the comment at the top). */
export class ModelSettingsSync {
  /** The rows the setting held when last written or seen: an edit is what differs from them. */
  private _last: IEndpointRow[];
  /** One step at a time: a write of the setting answers the edit before it. */
  private _queue: Promise<void> = Promise.resolve();

  constructor(
    private _setting: ISettingRegistry.ISettings,
    private _server: ServerConnection.ISettings,
    private _picker: ModelPicker,
    private _notify: (message: string) => void
  ) {
    this._last = readRows(_setting.get(MODELS_SETTING).composite);
    _setting.changed.connect(() => this._enqueue(() => this._edited()));
    _picker.listed.connect((_, list) => this._enqueue(() => this._mirror(list)));
  }

  /** Read the server's list once (the setting is written from it). */
  start(): Promise<void> {
    return this._picker.refresh().then(
      () => undefined,
      () => undefined // no server yet: the setting is written at the next list
    );
  }

  /** Settled once every step asked so far is done (for tests and the command line). */
  get settled(): Promise<void> {
    return this._queue;
  }

  private _enqueue(step: () => Promise<void>): void {
    this._queue = this._queue.then(step).catch(reason => {
      this._notify(reason instanceof Error ? reason.message : String(reason));
    });
  }

  /** Write the server's list into the setting, unless it holds it already. */
  private async _mirror(list: IModelList): Promise<void> {
    const rows = endpointRows(list.models);
    this._last = rows;
    const shown = readRows(this._setting.get(MODELS_SETTING).composite);
    if (!JSONExt.deepEqual(shown as unknown as ReadonlyPartialJSONValue, rows as unknown as ReadonlyPartialJSONValue)) {
      await this._setting.set(MODELS_SETTING, rows as never);
    }
  }

  /** The person edited the setting: send what changed, then show the server's list. */
  private async _edited(): Promise<void> {
    const now = readRows(this._setting.get(MODELS_SETTING).composite);
    const before = this._last;
    this._last = now;
    if (JSONExt.deepEqual(now as unknown as ReadonlyPartialJSONValue, before as unknown as ReadonlyPartialJSONValue)) {
      return; // the setting was written from the server's list (or another setting changed)
    }
    const plan = planSync(before, now);
    const problems = [...plan.refused];
    for (const name of plan.remove) {
      await removeEndpoint(this._server, name).catch(reason => problems.push(`${name}: ${describe(reason)}`));
    }
    for (const body of plan.add) {
      await addEndpoint(this._server, body).catch(reason => problems.push(`${body.name}: ${describe(reason)}`));
    }
    if (problems.length) {
      this._notify(`Model endpoints: ${problems.join(' ')}`);
    }
    await this._picker.refresh(); // its list is written back into the setting (_mirror)
  }
}

function describe(reason: unknown): string {
  if (reason instanceof OperatorRequestError || reason instanceof Error) {
    return reason.message;
  }
  return String(reason);
}
