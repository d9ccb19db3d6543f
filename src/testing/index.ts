// `wardrik/testing`: what tests and offline demos use. Every export is named and deliberate.
export { SCRIPTED_PREFIX, ScriptedModel, scriptedModel } from './scripted-model.js';
export type { Script, ScriptedCall, ScriptedModelOptions, ScriptedStep } from './scripted-model.js';
export { ManualTime, manualTime } from './manual-time.js';
export { settableClock, storeContract } from './store-contract.js';
export type { ContractClock, ContractOptions } from './store-contract.js';
