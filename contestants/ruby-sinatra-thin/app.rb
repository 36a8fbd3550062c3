# Sinatra on thin (the 2017 "Ruby sinatra + thin" contestant).
#
# GET /hello -> "Hello World"
# GET /app   -> 1024 bytes after 100 ms +-5%. The wait is an EventMachine timer
#               and the answer goes out through thin's async callback
#               (env['async.callback'] + throw :async), so the reactor keeps
#               serving other connections meanwhile.
require 'sinatra/base'
require 'eventmachine'
require 'time'

# Thin sends no Date header; HTTP/1.1 servers must. Formatted at most once a
# second.
class DateHeader
  @second = nil
  @value = nil

  def self.now
    t = Time.now.to_i
    unless t == @second
      @second = t
      @value = Time.at(t).httpdate.freeze
    end
    @value
  end

  def initialize(app)
    @app = app
  end

  def call(env)
    status, headers, body = @app.call(env)
    headers['Date'] = DateHeader.now
    [status, headers, body]
  end
end

class App < Sinatra::Base
  HELLO = 'Hello World'.freeze
  APP = ('x' * 1024).freeze

  set :environment, :production
  set :logging, false
  set :server, 'thin'

  get '/hello' do
    content_type 'text/plain'
    HELLO
  end

  get '/app' do
    callback = env['async.callback']
    halt 500, 'needs an async server (thin)' unless callback
    EM.add_timer(0.095 + rand * 0.010) do
      # Sent straight to thin, past Sinatra and the middleware, so the headers
      # are all set here.
      callback.call([200, {
        'Content-Type' => 'text/plain',
        'Content-Length' => APP.bytesize.to_s,
        'Date' => DateHeader.now,
      }, [APP]])
    end
    throw :async
  end
end
