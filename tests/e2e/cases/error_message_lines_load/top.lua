error("top level\nsecond line")
