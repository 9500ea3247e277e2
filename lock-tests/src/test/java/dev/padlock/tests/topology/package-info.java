/** One server, Sentinel, Cluster (Redis 7 and 6.2), TLS and ACL: the same locks on every topology Padlock supports. */
package dev.padlock.tests.topology;
