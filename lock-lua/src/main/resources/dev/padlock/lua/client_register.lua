-- client_register: write a client's entry in the client registry with its expiry, in one step.
--
-- KEYS[1]  the entry, padlock_client:<clientId>: a hash
-- ARGV[1]  the entry's time to live in milliseconds (PEXPIRE)
-- ARGV[2k], ARGV[2k+1]  field k and its value, for k = 1..n
--
-- Returns  1 (at least one field and value must be given: without, Redis's HSET fails and nothing
--          is written). Publishes nothing. The hash never exists without its expiry, so a client that
--          dies leaves its entry at most ARGV[1] milliseconds.
redis.call('hset', KEYS[1], unpack(ARGV, 2))
redis.call('pexpire', KEYS[1], ARGV[1])
return 1
