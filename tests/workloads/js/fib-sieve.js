// SPDX-License-Identifier: MIT
// Two JavaScript functions the JIT compiles, fib and sieve, called in
// turn until the process has used SECONDS of CPU time.
//   node fib-sieve.js SECONDS
'use strict';

function fib(n) {
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

function sieve(n) {
	const composite = new Uint8Array(n + 1);
	let count = 0;
	for (let i = 2; i <= n; i++) {
		if (composite[i])
			continue;
		count++;
		for (let j = i * i; j <= n; j += i)
			composite[j] = 1;
	}
	return count;
}

const seconds = parseFloat(process.argv[2] || '1');
const start = process.cpuUsage();
let sum = 0, rounds = 0;
for (;;) {
	const used = process.cpuUsage(start);
	if ((used.user + used.system) / 1e6 >= seconds)
		break;
	sum += fib(22) + sieve(200000);
	rounds++;
}
console.log(`rounds ${rounds} sum ${sum}`);
