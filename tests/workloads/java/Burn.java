// SPDX-License-Identifier: MIT
// Two methods the JVM compiles, fib and sieve, called in turn until the
// main thread has used SECONDS of CPU time.  Run from source:
//   java Burn.java SECONDS
public class Burn {
	static int fib(int n) {
		return n < 2 ? n : fib(n - 1) + fib(n - 2);
	}

	static int sieve(int n) {
		boolean[] composite = new boolean[n + 1];
		int count = 0;
		for (int i = 2; i <= n; i++) {
			if (composite[i])
				continue;
			count++;
			for (long j = (long) i * i; j <= n; j += i)
				composite[(int) j] = true;
		}
		return count;
	}

	public static void main(String[] args) {
		double seconds = Double.parseDouble(args[0]);
		java.lang.management.ThreadMXBean clock =
			java.lang.management.ManagementFactory.getThreadMXBean();
		long sum = 0, rounds = 0;
		while (clock.getCurrentThreadCpuTime() < seconds * 1e9) {
			sum += fib(22) + sieve(200000);
			rounds++;
		}
		System.out.println("rounds " + rounds + " sum " + sum);
	}
}
