return {Guard = guard_leaf, Patrol = patrol_leaf}
