// The package's JavaScript API: thin classes and functions over the WebAssembly exports.
// Every call goes to the Rust core; nothing here plans, packs or counts.
import * as raw from "./gpu_share_wasm.js";

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A workload's ask: a fraction of a GPU, GPU memory, both, or a named MIG profile. Validated on construction. */
export class FractionalAsk {
  constructor(name, size = {}) {
    // The README's shape, `{fraction}` alone, checked without building objects on either side.
    if (typeof name === "string" && onlyFraction(size)) {
      const fraction = raw.checkFraction(name, size.fraction);
      if (fraction !== undefined) {
        this.name = name;
        this.fraction = fraction;
        Object.freeze(this);
        return;
      }
    }
    const ask = raw.checkAsk({ name, ...size });
    this.name = ask.name;
    if (ask.fraction !== undefined) this.fraction = ask.fraction;
    if (ask.memory !== undefined) this.memory = ask.memory;
    if (ask.migProfile !== undefined) this.migProfile = ask.migProfile;
    Object.freeze(this);
  }
}

// binPack reads a list of these as it reads plain `{name, fraction}` objects: two columns
// (transfer.js `fractionColumns`).
Object.defineProperty(FractionalAsk.prototype, Symbol.for("gpu-share.fractionColumns"), { value: true });

function onlyFraction(size) {
  if (typeof size !== "object" || size === null || Object.getPrototypeOf(size) !== Object.prototype) return false;
  let keys = 0;
  for (const _ in size) keys++;
  return keys === 1 && typeof size.fraction === "number";
}

/** What the cluster supports. Validated against the GPU catalogue on construction. */
export class ClusterGpuCaps {
  constructor(options = {}) {
    Object.assign(this, raw.checkCaps(options));
    Object.freeze(this);
  }
}

export const selectMechanism = (ask, caps) => raw.selectMechanism(ask, caps);
export const binPack = (asks, gpuCount, caps, options) => raw.binPack(asks, gpuCount ?? null, caps, options);
export const binPackColumns = (columns, gpuCount, caps, options) =>
  raw.binPackColumns(columns, gpuCount ?? null, caps, options);
export const fractionalGpuHours = (fraction, seconds) => raw.fractionalGpuHours(fraction, seconds);
export const gpuModels = () => raw.gpuModels();
export const parseAsks = (text) => raw.parseAsks(text);
export const parseScenario = (query) => raw.parseScenario(query);
export const scenarioToQuery = (scenario) => raw.scenarioToQuery(scenario);
export const detect = (inputs) => raw.detect(inputs);
export const exportPlan = (format, asks, gpuCount, caps, options) =>
  raw.exportPlan(format, asks, gpuCount ?? null, caps, options);
export const simulateDra = (slices, asks, gpuCount, caps, options) =>
  raw.simulateDra(slices, asks, gpuCount ?? null, caps, options);
export const validateMig = (model, profiles) => raw.validateMig(model, profiles);
export const fit = (current, asks, options) => raw.fit(current, asks ?? null, options);
export const repartition = (current, asks, options) => raw.repartition(current, asks, options);
export const renderSvg = (result, options) => raw.renderSvg(result, options);
export const sizeModel = (config, options) => raw.sizeModel(config, options);
export const replay = (nodes, pods, options) => raw.replay(nodes, pods, options);
export const replaySvg = (nodes, pods, options) => raw.replaySvg(nodes, pods, options);

/** Usage records and releases, kept in memory; store them with toJsonLines() and read them back with fromJsonLines(). */
export class Ledger {
  #entries = [];

  constructor(entries = []) {
    // Round-trip through the core's reader so every entry is validated.
    if (entries.length) this.#entries = raw.parseLedger(raw.ledgerToJsonLines(entries));
  }

  /** Reads either stored form: JSON Lines (toJsonLines, the CLI's file) or the document of toJson. */
  static fromJson(text) {
    return new Ledger(raw.parseLedger(text));
  }

  static fromJsonLines(text) {
    return Ledger.fromJson(text);
  }

  get entries() {
    return structuredClone(this.#entries);
  }

  /**
   * Records a choice at `now`: a run of `seconds` that has just finished (it started `seconds`
   * before `now`), or, without `seconds`, a use open until release().
   */
  record(choice, { now = nowSeconds(), seconds = null } = {}) {
    const entry = raw.usageRecord(choice, now, seconds);
    this.#entries.push(entry);
    return entry;
  }

  /** Closes the latest open use of `ask`; throws (and changes nothing) when there is none. */
  release(ask, at = nowSeconds()) {
    this.#entries.push(raw.releaseEntry(this.#entries, ask, at));
  }

  /**
   * Merges a ledger text (JSON Lines or the document of toJson) into this one; an entry already
   * here is not added twice. Returns `{ added, alreadyPresent }`; throws and changes nothing on error.
   */
  import(text, { now = nowSeconds() } = {}) {
    const { entries, added, alreadyPresent } = raw.importLedger(this.#entries, text, now);
    this.#entries = entries;
    return { added, alreadyPresent };
  }

  /**
   * The uses already here that `entries` (what record() returned, or would add) would count again:
   * `[{ ask, recordedAt }]`, empty when none. The page asks before recording a plan twice.
   */
  alreadyRecorded(entries, { now = nowSeconds() } = {}) {
    return raw.alreadyRecorded(this.#entries, entries, now);
  }

  /**
   * Takes back entries just recorded (the latest occurrence of each); throws and changes nothing
   * when one is not here or a later release closes it.
   */
  undo(entries, { now = nowSeconds() } = {}) {
    this.#entries = raw.removeEntries(this.#entries, entries, now);
  }

  summarize({ now = nowSeconds(), rates = null } = {}) {
    return raw.summarizeLedger(this.#entries, now, rates);
  }

  toCsv({ now = nowSeconds() } = {}) {
    return raw.ledgerCsv(this.#entries, now);
  }

  summaryCsv({ now = nowSeconds(), rates = null } = {}) {
    return raw.ledgerSummaryCsv(this.#entries, now, rates);
  }

  /** The entries and their summary as one JSON document, for download; Ledger.fromJson reads it back. */
  toJson({ now = nowSeconds(), rates = null } = {}) {
    return raw.ledgerDocument(this.#entries, now, rates);
  }

  /** The entries as JSON Lines: the same format as the gpu-share CLI's ledger file. */
  toJsonLines() {
    return raw.ledgerToJsonLines(this.#entries);
  }
}
