"""apx's own Python helpers, loaded into the embedded interpreter from the apx jar."""
