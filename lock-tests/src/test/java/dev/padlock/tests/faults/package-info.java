/** What a lock does when Redis fails: unreachable servers, restarts that lose data, paused servers, read-only replies, and Sentinel and Cluster failovers. */
package dev.padlock.tests.faults;
