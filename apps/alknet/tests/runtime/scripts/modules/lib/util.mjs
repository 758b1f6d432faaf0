let n = 0;
export const greet = (who) => `hello ${who}`;
export const counter = () => ++n;
