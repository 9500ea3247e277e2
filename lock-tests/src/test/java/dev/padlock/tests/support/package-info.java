/** Helpers the tests share: clients closed after each test, contention runners, worker JVMs, Redisson clients, random calls, and waits for a quiet server before counting its commands. */
package dev.padlock.tests.support;
