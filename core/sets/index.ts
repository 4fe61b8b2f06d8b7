// The sets stage's door for other layers: the set form, compiled whole or as the next version
// from an earlier one and a change, with the content ids the store keys it by.
export { compileSets, type SetCompileStats, type SetFormChange } from './compile.js';
export { IdRecord } from './id-record.js';
export { contentId } from './ids.js';
export { SET_IR_VERSION, type IrSet, type RuleTable, type SetIr, type SetNode, type SetPod } from './ir.js';
export { compiledState, nextVersion, type CompiledState } from './next-version.js';
export { definitionId, definitionText, readFrom, setIrMembersText, setText, tableId, tableText } from './texts.js';
