#!/bin/sh
# A POSIX shell + jq extension: command /shout and tool "upper".
printf '%s\n' '{"type":"hello","name":"shout-sh","version":"0.1.0","capabilities":["commands","tools"]}'
while IFS= read -r line; do
  type=$(printf '%s' "$line" | jq -r '.type')
  case "$type" in
    hello_ack)
      printf '%s\n' '{"type":"register_command","name":"shout","description":"shout the args"}'
      printf '%s\n' '{"type":"register_tool","name":"upper","description":"Upper-case text.","schema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}'
      printf '%s\n' '{"type":"ready"}'
      ;;
    command_invoked)
      printf '%s' "$line" | jq -c '{type:"command_response",id:.id,action:"display",display:((.args // "") | ascii_upcase)}'
      ;;
    tool_call)
      printf '%s' "$line" | jq -c '{type:"tool_result",id:.id,content:[{type:"text",text:(.args.text | ascii_upcase)}]}'
      ;;
    shutdown)
      printf '%s\n' '{"type":"shutdown_ack"}'
      exit 0
      ;;
  esac
done
