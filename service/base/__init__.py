"""What every layer of the service uses: messages, descriptor facts, errors, keys."""
