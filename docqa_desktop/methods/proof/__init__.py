"""Written answers that show their proof: a model method's value comes with verbatim quotes (and, for a
computed value, the arithmetic over quoted numbers); the app finds the quotes on the pages read, evaluates the
arithmetic itself, and gives one repair round before calling the answer an unverified draft."""
