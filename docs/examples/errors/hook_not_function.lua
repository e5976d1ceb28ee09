return { Run = { tick = "fast" } }
