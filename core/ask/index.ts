// The ask stage's door for other layers: chat-ops questions read into a query and answered
// in a sentence, with the verdict's decision chain or the pod sets.
export { answer, answerRead, answerSince, ask, chainLines, type Answer } from './answer.js';
export { ACCEPTED_FORMS, isParseFailure, parseQuestion, readQuestion } from './parse.js';
