const x = 1;
Promise.reject(new RangeError("nope"));
