-- rw_read_locked: whether the read lock of a read-write lock is held, as Redisson's
-- RReadWriteLock.readLock().isLocked() answers it.
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- ARGV     none
--
-- Returns  1 when the lock is in read mode, or in write mode with read holds beside the writer's
--          (the writer's own reader field: mode, the writer and a reader make more than two
--          fields); 0 otherwise.
-- Publishes nothing, changes nothing.
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == 'read' or (mode == 'write' and redis.call('hlen', KEYS[1]) > 2) then
    return 1
end
return 0
