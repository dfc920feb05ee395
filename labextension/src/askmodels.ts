/**
 * Ask mode's model picker, "Add model" form and budget: the server's named endpoints
 * (`GET agent/models`, never a key), added and removed without a restart.
 *
 * A key typed in the form is sent to the server once (`POST agent/models`), which stores it
 * out of every workspace; the field is cleared at once and no answer ever holds a key.
 */
import { ServerConnection } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';

import { fetchJson } from './askrequests';
import { budgetValue } from './askstream';
import { OperatorRequestError } from './client';
import { button, el, summary } from './dom';
import { describeHttpError, endpointUrl } from './request';

/** A price per million tokens: one number, or [prompt, completion]. */
export type Price = number | [number, number];

/** One named endpoint as the server lists it. */
export interface IModelEndpoint {
  name: string;
  base_url: string;
  model: string;
  endpoint: string;
  label: string;
  /** Where the key comes from: "$VAR", "stored" or "none" (never the key). */
  key: string;
  source: 'config' | 'saved';
  price: Price | null;
}

/** `GET agent/models`. */
export interface IModelList {
  models: IModelEndpoint[];
  default: { available: boolean; label?: string | null; model: string | null; price?: Price | null };
}

/** What a run is asked with: the endpoint (null: the server's default) and the budgets. */
export interface IRunChoice {
  model: string | null;
  max_tokens?: number;
  max_cost?: number;
}

/** `POST agent/models`: a new endpoint; its key typed (`api_key`) or named (`key_env`). */
export interface IEndpointBody {
  name: string;
  base_url: string;
  model: string;
  api_key?: string;
  key_env?: string;
}

/** `POST agent/models`: save an endpoint on the server (an OperatorRequestError if refused). */
export async function addEndpoint(settings: ServerConnection.ISettings, body: IEndpointBody): Promise<void> {
  await fetchJson(settings, ['agent', 'models'], body);
}

/** `DELETE agent/models/{name}`: forget a saved endpoint and its stored key. */
export async function removeEndpoint(settings: ServerConnection.ISettings, name: string): Promise<void> {
  const url = endpointUrl(settings.baseUrl, ['agent', 'models', name]);
  const response = await ServerConnection.makeRequest(url, { method: 'DELETE' }, settings);
  if (!response.ok) {
    const error = describeHttpError(response.status, await response.text());
    throw new OperatorRequestError(error.code, error.message);
  }
}

/** The picker's value for the server's default model. */
const DEFAULT = '';

function labelled<T extends HTMLElement>(text: string, control: T): HTMLLabelElement {
  const label = el('label', 'jp-Operator-ask-field');
  label.append(el('span', 'jp-Operator-ask-field-name', text), control);
  return label;
}

function input(name: string, placeholder: string, type = 'text'): HTMLInputElement {
  const node = el('input', 'jp-Operator-ask-input');
  node.type = type;
  node.name = name;
  node.placeholder = placeholder;
  node.autocomplete = 'off';
  node.spellcheck = false;
  return node;
}

/** The picker, the add form and the budget fields of Ask. */
export class ModelPicker {
  readonly node = el('div', 'jp-Operator-ask-models');
  readonly select = el('select', 'jp-Operator-ask-model');
  private _removeButton: HTMLButtonElement;
  private _form = el('form', 'jp-Operator-ask-addform');
  private _name = input('name', 'a name, e.g. local');
  private _baseUrl = input('base_url', 'http://localhost:11434/v1', 'url');
  private _model = input('model', 'the model at the endpoint, e.g. qwen2.5-coder');
  private _key = input('api_key', 'its key (stored on the server, never shown again)', 'password');
  private _keyEnv = input('key_env', 'or the server variable holding it, e.g. MY_KEY');
  private _formError = el('div', 'jp-Operator-error');
  private _maxTokens = input('max_tokens', 'no limit', 'number');
  private _maxCost = input('max_cost', 'no limit', 'number');
  private _list: IModelList | null = null;
  private _listed = new Signal<this, IModelList>(this);
  private _added = new Signal<this, string>(this);

  constructor(
    private _settings: ServerConnection.ISettings,
    private _onChange: () => void,
    private _onError: (reason: unknown) => void
  ) {
    this.select.setAttribute('aria-label', 'Model to ask');
    this.select.addEventListener('change', () => this._changed());
    const addButton = button('Add model', 'jp-Operator-ask-add', () => this._toggleForm(), 'Add a model endpoint');
    addButton.setAttribute('aria-label', 'Add a model endpoint');
    this._removeButton = button('Remove', 'jp-Operator-ask-remove', () => void this.remove(), 'Remove this model endpoint');
    this._removeButton.setAttribute('aria-label', 'Remove the chosen model endpoint');
    const row = el('div', 'jp-Operator-row');
    row.append(labelled('Model', this.select), addButton, this._removeButton);

    this._name.setAttribute('aria-label', 'Endpoint name');
    this._baseUrl.setAttribute('aria-label', 'Base URL');
    this._model.setAttribute('aria-label', 'Model name at the endpoint');
    this._key.setAttribute('aria-label', 'API key');
    this._key.autocomplete = 'new-password';
    this._keyEnv.setAttribute('aria-label', 'Environment variable holding the key');
    this._formError.setAttribute('role', 'alert');
    this._formError.hidden = true;
    const save = el('button', 'jp-Button jp-mod-styled jp-mod-accept jp-Operator-ask-save', 'Save model');
    save.type = 'submit';
    save.setAttribute('aria-label', 'Save the model endpoint');
    const cancel = button('Cancel', 'jp-Operator-ask-cancel', () => this._toggleForm(false));
    cancel.setAttribute('aria-label', 'Cancel adding a model');
    const actions = el('div', 'jp-Operator-row');
    actions.append(save, cancel);
    this._form.append(
      labelled('Name', this._name),
      labelled('Base URL', this._baseUrl),
      labelled('Model', this._model),
      labelled('Key', this._key),
      labelled('or key variable', this._keyEnv),
      this._formError,
      actions
    );
    this._form.hidden = true;
    this._form.setAttribute('aria-label', 'Add a model endpoint');
    this._form.addEventListener('submit', event => {
      event.preventDefault();
      void this.add();
    });

    this._maxTokens.min = '1';
    this._maxTokens.step = '1';
    this._maxTokens.setAttribute('aria-label', 'Budget: most tokens for the run');
    this._maxCost.min = '0';
    this._maxCost.step = 'any';
    this._maxCost.setAttribute('aria-label', 'Budget: most cost for the run');
    const budget = el('details', 'jp-Operator-ask-options');
    budget.append(
      summary('Options: budget', 'jp-Operator-ask-options-summary'),
      labelled('Max tokens', this._maxTokens),
      labelled('Max cost', this._maxCost)
    );
    this.node.append(row, this._form, budget);
    this._removeButton.hidden = true; // until a saved endpoint is chosen
  }

  /** Each list read from the server (the settings editor's copy follows it: modelsettings.ts). */
  get listed(): ISignal<this, IModelList> {
    return this._listed;
  }

  /** The name of each endpoint saved from the "Add model" form. */
  get added(): ISignal<this, string> {
    return this._added;
  }

  /** Open the "Add model" form (what Ask offers when the server has no model); `focus`: move
   * the keyboard there (not when the panel offers it by itself). */
  openForm(focus = true): void {
    this._form.hidden = false;
    if (focus) {
      this._name.focus();
    }
  }

  /** The endpoint chosen (null: the server's default). */
  get chosen(): IModelEndpoint | null {
    return this._list?.models.find(m => m.name === this.select.value) ?? null;
  }

  /** Whether a run can start: a named endpoint, or the server's default model. */
  get available(): boolean {
    return this.select.value !== DEFAULT || Boolean(this._list?.default.available);
  }

  /** The price of the chosen model (null: unknown). */
  get price(): Price | null {
    if (this.select.value === DEFAULT) {
      return this._list?.default.price ?? null;
    }
    return this.chosen?.price ?? null;
  }

  /** What the run is asked with; an OperatorRequestError for a budget that is not a number. */
  choice(): IRunChoice {
    const found: IRunChoice = { model: this.select.value || null };
    const tokens = budgetValue(this._maxTokens.value);
    const cost = budgetValue(this._maxCost.value);
    if (Number.isNaN(tokens) || (tokens !== undefined && !Number.isInteger(tokens))) {
      throw new OperatorRequestError('BAD_BUDGET', 'Max tokens: a whole number above 0, or blank.');
    }
    if (Number.isNaN(cost)) {
      throw new OperatorRequestError('BAD_BUDGET', 'Max cost: a number above 0, or blank.');
    }
    if (tokens !== undefined) {
      found.max_tokens = tokens;
    }
    if (cost !== undefined) {
      found.max_cost = cost;
    }
    return found;
  }

  /** Read the list again from the server (keeps the choice when it is still there). */
  async refresh(select?: string): Promise<IModelList> {
    const list = await fetchJson<IModelList>(this._settings, ['agent', 'models']);
    this._list = list;
    const keep = select ?? this.select.value;
    this.select.replaceChildren();
    const fallback = list.default.available
      ? `Server default: ${list.default.label ?? list.default.model}`
      : 'Server default: none configured';
    this.select.append(new Option(fallback, DEFAULT));
    for (const model of list.models) {
      const option = new Option(`${model.name}: ${model.label}`, model.name);
      option.title = `${model.base_url} · key: ${model.key}${model.source === 'config' ? ' · server config' : ''}`;
      this.select.append(option);
    }
    const names = list.models.map(m => m.name);
    if (names.includes(keep)) {
      this.select.value = keep;
    } else if (!list.default.available && names.length) {
      this.select.value = names[0];
    } else {
      this.select.value = DEFAULT;
    }
    this._changed();
    this._listed.emit(list);
    return list;
  }

  /** Send the form: the key goes to the server once and the field is cleared. */
  async add(): Promise<void> {
    const body: IEndpointBody = {
      name: this._name.value.trim(),
      base_url: this._baseUrl.value.trim(),
      model: this._model.value.trim()
    };
    const key = this._key.value;
    this._key.value = ''; // the key is not kept in the page, whatever the answer
    if (key) {
      body.api_key = key;
    }
    if (this._keyEnv.value.trim()) {
      body.key_env = this._keyEnv.value.trim();
    }
    this._formError.hidden = true;
    try {
      await addEndpoint(this._settings, body);
      this._toggleForm(false);
      this._name.value = this._baseUrl.value = this._model.value = this._keyEnv.value = '';
      await this.refresh(body.name);
      this._added.emit(body.name);
    } catch (reason) {
      this._formError.textContent =
        reason instanceof OperatorRequestError ? reason.message : 'The model could not be added.';
      this._formError.hidden = false;
    }
  }

  /** Forget the chosen saved endpoint (and its stored key). */
  async remove(): Promise<void> {
    const chosen = this.chosen;
    if (!chosen || chosen.source !== 'saved') {
      return;
    }
    try {
      await removeEndpoint(this._settings, chosen.name);
      await this.refresh(DEFAULT);
    } catch (reason) {
      this._onError(reason);
    }
  }

  private _toggleForm(open?: boolean): void {
    this._form.hidden = !(open ?? this._form.hidden);
    if (!this._form.hidden) {
      this._name.focus();
    }
  }

  private _changed(): void {
    this._removeButton.hidden = this.chosen?.source !== 'saved';
    this._onChange();
  }
}
