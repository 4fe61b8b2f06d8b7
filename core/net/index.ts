// The net stage's door for other layers: addresses as integers and their range arithmetic.
export { familyOfText } from './ip.js';
