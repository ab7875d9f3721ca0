using System;
using System.Threading.Tasks;

namespace Acme.Tools
{
    /// <summary>A tool that runs jobs.</summary>
    [Serializable]
    public class Tool : IDisposable
    {
        public Tool(string name) { Name = name; }

        public string Name { get; set; }

        /// <summary>Runs the job.</summary>
        /// <param name="n">How many times.</param>
        public async Task<int> RunAsync(int n) => await Task.FromResult(n);

        public class Options
        {
            public void Validate() { }
        }

        public void Dispose() { }
    }

    public interface IShape { double Area(); }

    public struct Vec { public int X; }

    public enum Color { Red, Green }

    public record Person(string First, string Last);
}
