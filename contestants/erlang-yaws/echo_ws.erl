%% GET /ws of hello_yaws: a WebSocket echo on Yaws's own WebSocket support (yaws_websockets),
%% a basic callback module as Yaws's documentation shows one. Yaws does the handshake,
%% reassembles fragmented messages, answers pings, and calls this module with each whole
%% message: text and binary come back as they came, a close is answered with its code.
-module(echo_ws).
-export([handle_message/1]).

handle_message({text, Data}) ->
    {reply, {text, Data}};
handle_message({binary, Data}) ->
    {reply, {binary, Data}};
handle_message({close, Status, _Reason}) ->
    {close, Status};
handle_message(_) ->
    noreply.
